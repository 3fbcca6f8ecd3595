# the task's environment (the stand-in's place for a Dockerfile): a README in the folder
echo "a folder for the task" > README
